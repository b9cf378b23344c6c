"""A built-in set of varied English sentences for measuring what heads do across many inputs.

Written for this project: short and long, questions and commands, lists, numbers, quotes, clauses,
pronouns that refer back, rare words split into several pieces, everyday and software-help language
(the model was trained on both). `DEFAULT_SUBSET` is a spread-out selection that keeps the statistics
quick to compute.
"""

from __future__ import annotations

SENTENCES = [
    "The cat sleeps on the warm windowsill.",
    "I would like a cup of coffee, please.",
    "Where is the nearest train station?",
    "Please close the door when you leave.",
    "She has lived in Berlin for ten years.",
    "The children are playing in the garden.",
    "We will meet again tomorrow morning.",
    "He forgot his umbrella at the restaurant.",
    "Can you help me carry these boxes?",
    "The weather was cold, wet and windy.",
    "My brother works as a doctor in a small hospital.",
    "They bought apples, pears, bread and cheese at the market.",
    "The book that you lent me was very interesting.",
    "If it rains, we will stay at home.",
    "The old man told the boy a long story about the sea.",
    "She said that she did not know the answer.",
    "Do not touch the hot stove!",
    "The meeting starts at half past nine.",
    "It is too late to change the plan now.",
    "The dog barked because it heard a noise.",
    "The trophy did not fit into the suitcase because it was too big.",
    "Anna gave her sister the keys before she left.",
    "Although he was tired, he finished his homework.",
    "The museum is closed on Mondays.",
    "How much does this ticket cost?",
    "I have never seen such a beautiful sunset.",
    "The teacher explained the problem twice.",
    "We need three eggs, some flour and a little milk.",
    "The river flows slowly through the valley.",
    "Nobody knew where the letter had come from.",
    "Click the button to save your changes.",
    "Select the text that you want to copy.",
    "The file could not be opened.",
    "Choose a folder and enter a name for the new document.",
    "To insert a table, open the Insert menu and choose Table.",
    "The printer is not connected to the computer.",
    "You can change the font size in the settings.",
    "Press Enter to confirm your selection.",
    "This function returns the sum of all values in the range.",
    "The page numbers appear at the bottom of each page.",
    "The quick brown fox jumps over the lazy dog.",
    "Unfortunately, the concert was cancelled at short notice.",
    "Her grandmother's recipe is still the family's favourite.",
    "The scientists measured the temperature every hour.",
    "Which of these two coats do you prefer?",
    "The bridge was built in the nineteenth century.",
    "I think that the shop opens at eight o'clock.",
    "He speaks English, German and a little French.",
    "After the storm, the streets were full of branches.",
    "Thank you very much for your kind invitation.",
]

# every eighth sentence: a mix of every kind above, quick enough for the default view
DEFAULT_SUBSET = SENTENCES[::8]
